-- Built-in functions, window functions, recursive CTEs, JSON, math and
-- date functions, as Debian's options enable them.
SELECT abs(-5), round(2.5), round(-2.5), 7/2, 7%3, 7.0/2, typeof(1), typeof(1.0), typeof('x'), typeof(x'00'), typeof(NULL);
SELECT upper('abc'), lower('ÀBC'), length('héllo'), substr('sqlite',2,3), replace('a-b-c','-','+'), instr('hello','ll'), trim('  x  '), hex('AB'), quote('it''s');
SELECT printf('%5.2f|%-5s|%05d|%x|%q', 3.14159, 'ab', 42, 255, 'o''k');
SELECT soundex('Robert'), soundex('Tymczak'), 'abc' LIKE 'A%', 'abc' GLOB 'A*', x'616263' LIKE 'abc';
SELECT sqrt(16), pow(2,10), floor(-1.5), ceil(1.2), log10(1000), pi() > 3.14;
SELECT date('2024-02-28','+1 day'), datetime(0,'unixepoch'), strftime('%j','2024-12-31'), julianday('2000-01-01');
WITH RECURSIVE fib(n,a,b) AS (SELECT 1,0,1 UNION ALL SELECT n+1,b,a+b FROM fib WHERE n<50) SELECT max(b) FROM fib;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<10)
SELECT i, sum(i) OVER (ORDER BY i), rank() OVER (ORDER BY i%3), lag(i) OVER (ORDER BY i), ntile(3) OVER (ORDER BY i) FROM n;
SELECT group_concat(v, ',') FROM (SELECT value AS v FROM json_each('[3,1,2]') ORDER BY v);
SELECT json_extract('{"a":{"b":[1,2,{"c":"d"}]}}', '$.a.b[2].c'), json_array(1,'x',NULL), json_object('k', 1.5), json_valid('{x'), json_type('[1]');
SELECT key, value, type FROM json_tree('{"x":[1,{"y":true}]}') ORDER BY id;
SELECT json_set('{"a":1}', '$.b', json('[2]')), json_remove('[1,2,3]', '$[1]'), json_group_array(x) FROM (SELECT 1 x UNION ALL SELECT 2);
CREATE TABLE v(a, b);
INSERT INTO v VALUES (1,'x'),(2,'y'),(3,NULL),(NULL,'z');
SELECT count(*), count(a), count(b), avg(a), sum(a), total(a), group_concat(b) FROM v;
SELECT a, b, coalesce(b,'-'), ifnull(a,0), nullif(a,2), iif(a>1,'big','small') FROM v ORDER BY a NULLS LAST;
UPDATE v SET b='w' WHERE a IS NULL LIMIT 1;
SELECT * FROM v WHERE b='w';
CREATE VIEW vv AS SELECT rowid, a FROM v;
SELECT rowid, a FROM vv ORDER BY rowid;
SELECT name, type FROM sqlite_schema ORDER BY name;
