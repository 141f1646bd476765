"""`import` and live appends: finding transcripts (session dirs, upstream agent databases),
reading their lines, and storing each source's new lines as events in one transaction."""
