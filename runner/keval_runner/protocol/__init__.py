"""The controller <-> runner protocol: its JSON Schemas (*.schema.json, docs/protocol.md), the
request check, the message writer, an error's fields, and a job's phase seconds."""
