from grader.cli.launch import main

main()
