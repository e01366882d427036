"""Lab lesson1_3's material for the instructor only: the catalogue of realistic student bugs (mutants.py), the
check that the reference reproduces the figures the lesson prints (test_figures.py), correct
submissions written independently of the reference (submissions/) and the red team's hostile
submissions with the reports they must get (hostile/), and a submission tuned to the visible tests that the
hidden tests must catch (tuned/). The kit's own tests find it from the lab
(tests/instructor.py). It is not part of the student edition: the mutants are the reference with
one bug each, and the rest grades or reproduces the solution, so it would give the solution away."""
