-- The events of one hour counted by kind. The spark-sql engine replaces ${events} with the input's paths and
-- ${counts} with the output's staging folder; the runner publishes it (and its _SUCCESS) once this succeeded.
INSERT OVERWRITE DIRECTORY '${counts}'
USING json
SELECT event, COUNT(*) AS n
FROM json.`${events}`
GROUP BY event
ORDER BY event;
