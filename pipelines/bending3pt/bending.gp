# bending3pt: the indenter's normalized force against its normalized travel (eq. 52) with
# the reference F^ = delta^, and the modal amplitude against the travel.
set terminal pngcairo size 1000,760 font ",11"
set output dir."/bending.png"
set datafile separator "\t"
set key inside left top noenhanced
set grid
set multiplot layout 2,1 title "bending3pt (Henzel & Karapiperis Fig. 4): 160x4x4 beam, analytic bending mode, three cylinders"
set ylabel "F / (K_g delta0)" noenhanced
set xrange [0:1]
plot dir."/bending.tsv" using "delta_hat":"F_hat" with lines lw 2 title "deformable LS-DEM: indenter force", \
     x with lines lw 1 dt 2 lc rgb "black" title "F^ = delta^ (generalized stiffness K_g)"
set xlabel "indenter travel delta from first contact"
set ylabel "modal amplitude eps"
set autoscale x
plot dir."/bending.tsv" using "delta":"eps" with lines lw 3 title "eps", \
     x with lines dt 2 lc rgb "black" title "eps = delta"
unset multiplot
