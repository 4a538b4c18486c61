"""Reports and charts: the experiment report (report.md, tables, charts) and the chart and text helpers every lab report uses."""
