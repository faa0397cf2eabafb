# Kuhn (2011) Fig. 8: T/(mu N0) against s/s_ref for the Mindlin-Deresiewicz sec. 17 program.
# Called by the Makefile: gnuplot -e "term='pngcairo'; out='out/md17.png'; dir='out'" md17.gp
if (!exists("term")) term = "pngcairo"
if (!exists("dir")) dir = "out"
if (!exists("out")) out = dir."/md17.png"
if (term eq "pngcairo") {
    set terminal pngcairo size 900,680 enhanced font "DejaVu Sans,11"
} else {
    set terminal png size 900,680
}
set output out
set datafile separator "\t"
set datafile commentschars "#"
# The case as the closed form wrote it (so the title follows the Makefile's parameters).
case = system("sed -n 's/^# title: //p' ".dir."/md17_states.tsv")
set title "Mindlin-Deresiewicz §17 (Kuhn 2011, Fig. 8): proportional loading dT/dN = 2μ from N0 up to N1, then back to N0\n".case noenhanced
set xlabel "tangential displacement s / s_{ref}   (s_{ref} = μκd_0, Cattaneo-Mindlin slip distance at N_0)"
set ylabel "tangential force T / (μ N_0)"
set key right bottom box opaque
set grid
set xrange [-0.05:1.45]
set yrange [-0.6:2.05]
# Scales for the raw contact-path output, from the closed form's header.
sref = real(system("sed -n 's/^# s_ref: //p' ".dir."/md17_states.tsv"))
muN0 = real(system("sed -n 's/^# muN0: //p' ".dir."/md17_states.tsv"))
# The last plot labels the four-step states with N/N0.
plot dir."/md17_curve.tsv" using 7:6 with lines lw 2 lc rgb "black" \
         title "closed form (MDR / Mindlin-Deresiewicz)", \
     dir."/mindlin_fine.tsv" using ($2/sref):($5/muN0) with lines dt 3 lw 1.2 lc rgb "#d62728" \
         title "incremental Mindlin, 400 small steps", \
     dir."/md17.tsv" using 6:14 with linespoints dt 2 lw 1.5 pt 6 ps 1.8 lc rgb "#d62728" \
         title "incremental Mindlin, same 4 steps", \
     dir."/md17.tsv" using 6:13 with points pt 7 ps 1.4 lc rgb "#1f77b4" \
         title "Jäger, 4 large steps", \
     dir."/md17.tsv" using 6:12:(sprintf("%.2f N_0", $3)) with labels offset 4.5,-0.9 \
         font ",9" tc rgb "#555555" notitle
