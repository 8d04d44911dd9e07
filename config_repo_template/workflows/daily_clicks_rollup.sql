-- Daily clicks rollup: per page, yesterday's clicks, the busiest hour's distinct users and the peak
-- trailing three-hour clicks, from the 24 hourly summaries.
-- Run by the toolkit's spark-sql engine, which replaces ${hourly} with the input window's paths and
-- ${daily} with the output instance's path (see README.md).
INSERT OVERWRITE DIRECTORY '${daily}'
USING json
SELECT
  page,
  SUM(clicks) AS clicks,
  MAX(users) AS peak_hourly_users,
  MAX(clicks_3h) AS peak_clicks_3h,
  COUNT(*) AS hours_with_clicks
FROM json.`${hourly}`
WHERE clicks > 0
GROUP BY page
ORDER BY page
