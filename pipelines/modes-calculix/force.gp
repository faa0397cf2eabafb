# Sphere between rigid planes: plate force against pole travel (FEM, Hertz, energyfit table,
# the linear force of modefit's K_g, the FEM curve's tangent at the last increment).
# Called by the Makefile: gnuplot -e "term='pngcairo'; dir='out/sphere'; out='...png'" force.gp
if (!exists("term")) term = "pngcairo"
if (!exists("dir")) dir = "out/sphere"
if (!exists("out")) out = dir."/force.png"
if (term eq "pngcairo") {
    set terminal pngcairo size 900,680 enhanced font "DejaVu Sans,11"
} else {
    set terminal png size 900,680
}
set output out
set datafile separator "\t"
set datafile commentschars "#"
case = system("sed -n '1s/^# sphere \\(.*\\) between.*/\\1/p' ".dir."/reaction.tsv")
set title "Elastic sphere between two rigid planes (CalculiX, frictionless contact)\n".case noenhanced
set xlabel "pole travel ε (each plane; modefit's normalization: Φ_z(0,0,R) = -1)"
set ylabel "force on one plane F  (= F_ε / 2)"
set key left top box opaque
set grid
set yrange [0:*]
plot dir."/curves.tsv" index 0 using 1:2 with lines lw 2 lc rgb "black" \
         title "Hertz, 4/3 E* √R ε^{3/2}", \
     dir."/curves.tsv" index 0 using 1:4 with lines dt 2 lw 1.5 lc rgb "#2ca02c" \
         title "tangent of the FEM curve at ε_{max}", \
     dir."/curves.tsv" index 0 using 1:3 with lines dt 3 lw 2 lc rgb "#9467bd" \
         title "K_g ε / 2 (modefit's KMAT, linear)", \
     dir."/curves.tsv" index 1 using 1:2 with lines lw 1.2 lc rgb "#1f77b4" \
         title "energyfit table (ETAB F / 2)", \
     dir."/reaction.tsv" using 4:5 every ::1 with points pt 7 ps 1.3 lc rgb "#d62728" \
         title "CalculiX, reaction per increment"
