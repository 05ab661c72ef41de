args: plot
exit: 2
