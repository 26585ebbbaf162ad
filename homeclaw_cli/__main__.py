from homeclaw_cli.cli.main import main

main()
