from mpimeter.cli import main

main()
