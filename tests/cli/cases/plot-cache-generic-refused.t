args: plot cache examples/dlrm-criteo.ini --gpu H100-SXM -o chart.svg
exit: 2
