# compaction1: the six walls' total force against their travel u (from first contact), with
# the force table the sphere's ETAB interpolates, and the modal amplitude against u.
set terminal pngcairo size 1000,760 font ",11"
set output dir."/compaction.png"
set datafile separator "\t"
set key inside left top noenhanced
set grid
set multiplot layout 2,1 title "compaction1 (Henzel & Karapiperis Fig. 5): sphere R = 10, cubic mode, six walls"
set ylabel "total wall force"
plot dir."/compaction.tsv" using "u":"F_walls" with lines lw 3 title "deformable LS-DEM: sum of the six walls", \
     "" using "u":"F_table" with lines lw 1 dt 2 lc rgb "black" title "F(u): Appendix B table (PCHIP, as the ETAB)", \
     table using 1:2 with points pt 7 ps 0.8 lc rgb "black" title "Appendix B samples"
set xlabel "wall travel u from first contact"
set ylabel "modal amplitude eps"
plot dir."/compaction.tsv" using "u":"eps" with lines lw 3 title "eps", \
     x with lines dt 2 lc rgb "black" title "eps = u"
unset multiplot
