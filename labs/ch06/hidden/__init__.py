"""Lab ch06's hidden tests: for instructors, counted at grading time, never shipped to students."""
