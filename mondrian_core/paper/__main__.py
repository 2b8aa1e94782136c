from mondrian_core.paper.recipes import main

raise SystemExit(main())
