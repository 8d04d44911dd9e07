"""`toolkit sla`: which feed and process instances missed, or are about to miss, their SLA (Falcon's `slaLow`/
`slaHigh` on feeds, `shouldStartIn`/`shouldEndIn` on processes), read from the ledger and the file system without
Spark, and the notifications of those misses (toolkit/services/notifications/), each sent once."""
