# Plots of the cyclic plane-strain runs from summary.py's tables (out/summary.tsv,
# out/history.tsv, out/loops.tsv); `cycles` (cycles a level) is given by the Makefile.
set datafile separator "\t"
set datafile columnheaders
runs = "jager-0 jager-0.1 mindlin"
title(r) = r eq "jager-0" ? "exact Jäger (β = 0)" : r eq "jager-0.1" ? "Jäger β = 0.1" : "Mindlin (incremental)"
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 1.2
set style line 2 lc rgb "#d62728" lw 2 pt 5 ps 1.1 dt 2
set style line 3 lc rgb "#2ca02c" lw 2 pt 9 ps 1.3 dt 3
ls(r) = r eq "jager-0" ? 1 : r eq "jager-0.1" ? 2 : 3

# 1. Modulus reduction and damping against the shear strain amplitude.
set terminal pngcairo size 1200,500 font ",10"
set output "out/modulus-damping.png"
set multiplot layout 1,2 title "Drained cyclic plane strain at constant mean stress, 4096 glass spheres, μ = 0.3, p = 100 kPa"
set logscale x
set format x "10^{%L}"
set xlabel "shear strain amplitude γ_a = (ε_{zz} − ε_{xx})_a"
set grid
set key bottom left
set ylabel "G / G_{max} (secant, last loops; G_{max}: smallest amplitude)"
set yrange [0:1.1]
plot for [r in runs] "out/summary.tsv" \
  using (strcol("run") eq r ? column("gamma_a") : NaN):"G_Gmax" \
  with linespoints ls ls(r) title title(r)
set key top left
set ylabel "damping ratio D = ΔW / (4π W)"
set yrange [0:*]
plot for [r in runs] "out/summary.tsv" \
  using (strcol("run") eq r ? column("gamma_a") : NaN):"D" \
  with linespoints ls ls(r) title title(r)
unset multiplot

# 2. History length and memory as the cycles accumulate (cycle 0: after the rest).
set output "out/history.png"
unset logscale x
set format x "%g"
set multiplot layout 1,2 title sprintf("Jäger history as the cycles accumulate (%d cycles at each amplitude, 10^{-6} to 10^{-3})", cycles)
set xlabel "cycles"
set xrange [0:*]
set ylabel "history cells per contact in touch"
set logscale y
set yrange [1:*]
set key top left
set xtics cycles
plot for [r in "jager-0 jager-0.1"] "out/history.tsv" \
  using (strcol("run") eq r ? column("cycle") : NaN):"mean_history" \
  with linespoints ls ls(r) title title(r)." mean (cycle's end)", \
  for [r in "jager-0 jager-0.1"] "out/history.tsv" \
  using (strcol("run") eq r ? column("cycle") : NaN):"max_history" \
  with lines ls ls(r) lw 1 title title(r)." longest stack in the cycle"
set ylabel "history bytes per contact in touch"
set yrange [*:*]
plot for [r in "jager-0 jager-0.1"] "out/history.tsv" \
  using (strcol("run") eq r ? column("cycle") : NaN):"live_bytes_per_contact" \
  with linespoints ls ls(r) title title(r)." live (28 B a cell)", \
  for [r in "jager-0 jager-0.1"] "out/history.tsv" \
  using (strcol("run") eq r ? column("cycle") : NaN):"pool_bytes_per_contact" \
  with lines ls ls(r) lw 1 title title(r)." pools' capacity"
unset multiplot

# 3. The last loop at each amplitude, normalized by its amplitudes (Masing: the same shape for
#    a linear solid at every amplitude; fatter as the contacts slip).
set output "out/loops.png"
set terminal pngcairo size 1500,480 font ",10"
unset logscale y
set xtics auto
set xrange [-1.3:1.3]
set yrange [-1.3:1.3]
set xlabel "(γ − mean) / γ_a"
set ylabel "(τ − mean) / τ_a"
set key top left
set multiplot layout 1,3 title "The last loop at each amplitude, normalized"
do for [r in runs] {
  set title title(r)
  plot for [a in "1e-06 1e-05 0.0001 0.001"] "out/loops.tsv" \
    using (strcol("run") eq r && strcol("amplitude") eq a ? column("gamma_norm") : NaN):"tau_norm" \
    with lines lw 1.5 title "A_{zz} = ".a
}
unset multiplot
