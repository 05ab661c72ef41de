args: 
exit: 2
