# The sphere-compaction grain: the FEM's generalized force and energy against the modal
# table energyfit built from it, and the single mode's K_g as the tangent at full load.
# Called by the Makefile: gnuplot -e "dir='out'" modes.gp
if (!exists("dir")) dir = "out"
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1100,480 enhanced font "DejaVu Sans,11"
} else {
    set terminal png size 1100,480
}
set output dir."/modes.png"
set datafile separator "\t"
set datafile commentschars "#"
set multiplot layout 1,2 title "Sphere R = 10 between rigid planes (CalculiX) -> modefit | energyfit"
set grid
set key top left Left reverse
set xlabel "eps = pole travel (mode normalization)"
set ylabel "generalized force F_eps"
plot dir."/modes.tsv" index 0 using 1:2 with points pt 7 ps 1.2 title "FEM: F_{top} + F_{bottom}", \
     "" index 1 using 1:2 with lines lw 2 title "ETAB F(eps) knots (energyfit)", \
     "" index 2 using 1:2 with lines lw 2 dt 2 title "linear mode F = K_g eps (KMAT)", \
     "" index 0 using 1:4 with lines lw 1 dt 3 title "Hertz (both plates)"
set ylabel "energy"
plot dir."/modes.tsv" index 0 using 1:3 with points pt 7 ps 1.2 title "FEM strain energy (CalculiX)", \
     "" index 1 using 1:3 with lines lw 2 title "ETAB U(eps) = integral of F", \
     "" index 2 using 1:3 with lines lw 2 dt 2 title "linear mode U = K_g eps^2 / 2"
unset multiplot
