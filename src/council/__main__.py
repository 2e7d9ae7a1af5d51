from council.cli import main

main()
