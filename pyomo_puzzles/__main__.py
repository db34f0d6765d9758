from pyomo_puzzles.cli import main

raise SystemExit(main())
