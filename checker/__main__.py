from checker.cli import main

main()
