# compaction1: the six walls' total force against their travel u (from first contact):
# demrun with the CalculiX-built grain, the converged CalculiX curve it is checked against,
# and Appendix B's table (the paper's Abaqus curve, information); below, both against
# CalculiX in per cent, with the check's 5 % band from u = 0.05.
set terminal pngcairo size 1000,860 font ",11" noenhanced
set output dir."/compaction.png"
set datafile separator "\t"
set key inside left top noenhanced
set grid
set multiplot layout 2,1 title "compaction1 (Henzel & Karapiperis Fig. 5): sphere R = 10 between six frictionless walls"
set ylabel "six walls' total force F"
set xrange [0:0.165]
plot dir."/compaction.tsv" using "u":"F_walls" with lines lw 3 title "demrun, grain from CalculiX (single mode + CalculiX force table)", \
     ccx using "u":"F" with points pt 7 ps 1.1 lc rgb "black" title "CalculiX, converged octant (check's reference)", \
     dir."/compaction.tsv" using "u":"F_table" with lines lw 1 dt 2 lc rgb "red" title "Appendix B table (PCHIP)", \
     table using 1:2 with points pt 6 ps 0.9 lc rgb "red" title "Appendix B samples"
set xlabel "wall travel u from first contact"
set ylabel "F / F_CalculiX - 1 (%)"
set yrange [-50:15]
set arrow 1 from 0.05, graph 0 to 0.05, graph 1 nohead dt 3
plot dir."/compaction.tsv" using "u":(100*column("rel_ccx")) with lines lw 3 title "demrun", \
     "" using "u":(100*column("rel_table")) with lines lw 1 dt 2 lc rgb "red" title "Appendix B table", \
     5 with lines dt 3 lc rgb "gray40" title "check: +-5 % for u >= 0.05", \
     -5 with lines dt 3 lc rgb "gray40" notitle
unset multiplot
