"""The debate protocol (docs/spec/protocol.md): plan, bus, seats, lead, decision, result."""
