"""The kit's own tests: the labs' tests are strong, the grader is right, the reports are well formed."""
