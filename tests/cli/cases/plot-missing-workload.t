args: plot scaling
exit: 2
