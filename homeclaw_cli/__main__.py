from homeclaw_cli.surfaces.cli.main import main

main()
