"""The kit as a product: starters generated from the references, the student edition, and the
manifest of the files a student must not change."""
