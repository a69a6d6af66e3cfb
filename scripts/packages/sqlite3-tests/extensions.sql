-- The extensions Debian enables: FTS3/4 and FTS5 full-text search, the
-- R-tree, dbstat, the stmt virtual table, and a session changeset's size
-- through the shell's .session command.
CREATE VIRTUAL TABLE f4 USING fts4(title, body);
INSERT INTO f4 VALUES ('sqlite', 'a small fast reliable database engine');
INSERT INTO f4 VALUES ('llvm', 'a compiler infrastructure with an inliner');
INSERT INTO f4 VALUES ('mlgo', 'machine learning guided compiler optimization');
SELECT title FROM f4 WHERE f4 MATCH 'compiler' ORDER BY title;
SELECT title, snippet(f4) FROM f4 WHERE body MATCH 'fast OR guided' ORDER BY title;
SELECT title, offsets(f4) FROM f4 WHERE f4 MATCH 'comp*' ORDER BY title;
CREATE VIRTUAL TABLE f5 USING fts5(doc, tokenize='porter');
INSERT INTO f5 SELECT printf('document %d about %s', value, CASE value%3 WHEN 0 THEN 'running' WHEN 1 THEN 'runs' ELSE 'walking' END) FROM generate_series(1, 300);
SELECT count(*) FROM f5 WHERE f5 MATCH 'run';
SELECT doc FROM f5 WHERE f5 MATCH 'walk AND "document 29"' ORDER BY rank LIMIT 3;
SELECT highlight(f5, 0, '[', ']') FROM f5 WHERE f5 MATCH 'NEAR(document runs, 3)' ORDER BY rowid LIMIT 2;
CREATE VIRTUAL TABLE r USING rtree(id, x0, x1, y0, y1);
INSERT INTO r SELECT value, value, value+2, value*2, value*2+3 FROM generate_series(1, 500);
SELECT count(*) FROM r WHERE x0<=100 AND x1>=95 AND y0<=200 AND y1>=190;
SELECT id FROM r WHERE x1<5 ORDER BY id;
SELECT rtreecheck('r');
CREATE TABLE plain(x);
INSERT INTO plain SELECT randomblob(0) || value FROM generate_series(1, 1000);
SELECT name, sum(ncell) > 0 FROM dbstat WHERE name='plain' GROUP BY name;
SELECT count(*) > 0 FROM sqlite_stmt;
PRAGMA integrity_check;
