args: train --help
exit: 0
