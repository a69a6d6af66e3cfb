-- Tables and indexes on a file database large enough to split b-tree
-- pages many times, updates, deletes, a vacuum and an integrity check.
PRAGMA page_size=1024;
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT, b BLOB);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<20000)
INSERT INTO t SELECT i, (i*7919)%10007, printf('row-%06d', i), zeroblob(i%97) FROM n;
CREATE INDEX tk ON t(k);
CREATE UNIQUE INDEX ts ON t(s);
SELECT count(*), sum(k), min(s), max(s), sum(length(b)) FROM t;
SELECT id, k FROM t WHERE k BETWEEN 100 AND 103 ORDER BY k, id;
UPDATE t SET k=k+1 WHERE id%3=0;
DELETE FROM t WHERE id%5=0;
SELECT count(*), sum(k), total(id) FROM t;
SELECT k, count(*) FROM t GROUP BY k HAVING count(*)>2 ORDER BY k LIMIT 5;
BEGIN;
INSERT INTO t(k,s) VALUES(-1,'rolled-back');
ROLLBACK;
SELECT count(*) FROM t WHERE s='rolled-back';
CREATE TABLE u(a INTEGER PRIMARY KEY, tid INTEGER REFERENCES t(id));
INSERT INTO u SELECT id, id*2 FROM t WHERE id<=50;
SELECT count(*), sum(t.k) FROM u JOIN t ON t.id=u.tid;
SELECT count(*) FROM u LEFT JOIN t ON t.id=u.tid WHERE t.id IS NULL;
VACUUM;
PRAGMA integrity_check;
SELECT count(*) FROM t INDEXED BY tk WHERE k>5000;
