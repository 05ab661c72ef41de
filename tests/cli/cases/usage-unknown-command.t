args: trian
exit: 2
