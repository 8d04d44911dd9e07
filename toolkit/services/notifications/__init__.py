"""Messages to people when an instance fails, times out, misses its SLA or (when asked) succeeds: e-mail over the
cluster's SMTP server and a JSON webhook for chat tools; a message that cannot be sent is recorded, never fatal."""
