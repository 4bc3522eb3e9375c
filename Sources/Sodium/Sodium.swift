// Sodium: filled in by its issue.
