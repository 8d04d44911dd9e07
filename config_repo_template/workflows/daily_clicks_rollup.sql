-- Daily clicks rollup: per page, yesterday's clicks, the busiest hour's distinct users and the peak
-- trailing three-hour clicks, from the 24 hourly summaries.
-- Run by the toolkit's spark-sql engine, which replaces ${hourly} with the input window's paths (one glob),
-- ${daily} with the file output's staging path, and Falcon's falcon_output_* names with the table output's
-- staging table and partition (the runner publishes both only when every statement succeeded; see README.md).
CREATE OR REPLACE TEMPORARY VIEW rollup AS
SELECT
  page,
  SUM(clicks) AS clicks,
  MAX(users) AS peak_hourly_users,
  MAX(clicks_3h) AS peak_clicks_3h,
  COUNT(*) AS hours_with_clicks
FROM json.`${hourly}`
WHERE clicks > 0
GROUP BY page;

INSERT OVERWRITE DIRECTORY '${daily}'
USING json
SELECT * FROM rollup ORDER BY page;

INSERT OVERWRITE TABLE ${falcon_output_database}.${falcon_output_table}
PARTITION (${falcon_output_dataout_partitions})
SELECT page, clicks, peak_hourly_users, peak_clicks_3h, hours_with_clicks FROM rollup;
