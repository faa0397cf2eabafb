# cubic27: the six walls' total force against their travel with Appendix C's 9 F_int(u/3),
# and the modal amplitudes of the 27 spheres against u/3.
set terminal pngcairo size 1000,1000 font ",11" noenhanced
set output dir."/cubic.png"
set datafile separator "\t"
set key inside left top noenhanced
set grid
set multiplot layout 3,1 title "cubic27 (Henzel & Karapiperis Fig. 6, App. C): 27 spheres, cubic packing, six walls"
set ylabel "total wall force"
plot dir."/cubic.tsv" using "u":"F_w" with lines lw 3 title "deformable LS-DEM: sum of the six walls", \
     "" using "u":"F_ref" with lines lw 1 dt 2 lc rgb "black" title "9 F_int(u/3), F_int: Appendix B table (PCHIP, as the ETAB)"
set ylabel "F_w / 9 F_int(u/3) - 1  (%)"
set yrange [-6:6]
set key inside right bottom
set xlabel "wall travel u (the check's tolerance: 3 % from u_max/4)"
plot dir."/cubic.tsv" using "u":(column("F_ref") > 0 ? 100 * (column("F_w") / column("F_ref") - 1) : NaN) \
       with lines lw 2 title "relative error of the walls' force", \
     3 with lines dt 2 lc rgb "red" title "+-3 %", -3 with lines dt 2 lc rgb "red" notitle
set autoscale y
set key inside left top
set xlabel "wall travel u / 3"
set ylabel "modal amplitude eps"
plot dir."/cubic.tsv" using ($1/3):"eps_mean" with lines lw 3 title "mean eps of the 27 spheres", \
     "" using ($1/3):"eps_min" with lines lw 1 title "smallest", \
     "" using ($1/3):"eps_max" with lines lw 1 title "largest", \
     x with lines dt 2 lc rgb "black" title "eps = u/3"
unset multiplot
