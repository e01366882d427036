"""Where else the kit grades: CI on a student's fork (GitHub Actions) and Gradescope's autograder.

Each turns canonical reports into what its platform reads; the formats themselves are
in grader.report.exports, the commands in grader.cli.
"""
