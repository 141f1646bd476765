"""The full-text index: index rows built from stored events, the same-transaction append rule,
and the reconciliation that rebuilds stale transcripts (claims, planning, writing, publishing),
its failures and its locks."""
