from grader.cli.launch import main

if __name__ == "__main__":  # not when a process pool's spawned worker imports this module as its main
    main()
