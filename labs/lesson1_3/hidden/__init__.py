"""Lab lesson1_3's hidden tests: for instructors only, counted at grading time, never shipped to students."""
