"""Notification channels: how a message reaches people (e-mail over SMTP, a JSON webhook).

Each channel is one `*_channel.py` module defining `CHANNEL`, a `Channel` (`channel.py`): the cluster properties
it reads (`notification.<channel>.*`), how it reads them (checked where they are read, for the notifier and lint
CL007 alike) and how it delivers a message. `registry.py` finds them. The notifier (`toolkit/services/notifications/`)
decides what is said and when, records it once in the ledger, and hands it to every channel the cluster sets up.
"""
