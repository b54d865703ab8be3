from crepair.cli import run

run()
