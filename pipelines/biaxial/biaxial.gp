# Deviator stress ratio (szz - sxx)/(szz + sxx) and volumetric strain against axial strain,
# for the four runs of the biaxial test (to 4 %) and the exact Jager run continued (to 10 %),
# from their probes (compression positive).
set terminal pngcairo size 1200,520 font ",10"
set output "out/biaxial.png"
set multiplot layout 1,2 \
  title "Plane-strain biaxial compression of the dense sample (4096 spheres), constant lateral stress"
set datafile separator "\t"
set datafile columnheaders
set xlabel "axial strain ε_{zz} (compression +)"
set xrange [0:*]
set grid
runs = "jager-0 jager-0.1 jager-0.2 mindlin"
# Kuhn's test ends at 4 %; the continued run shows the peak's fall beyond it
set arrow 1 from 0.04, graph 0 to 0.04, graph 1 nohead dt 3 lc rgb "gray40"
set label 1 "end of Kuhn's test" at 0.041, graph 0.96 tc rgb "gray40"
# columns by name; rows of the consolidation stage (step < settle) are skipped
set ylabel "deviator stress ratio (σ_{zz} − σ_{xx}) / (σ_{zz} + σ_{xx})"
set key bottom right
plot "out/continued/probes.tsv" \
  using (column(2) > settle ? column("eps_zz") : NaN):((column("szz") - column("sxx")) / (column("szz") + column("sxx"))) \
  with lines lw 1.5 lc rgb "gray60" title "jager-0 continued", \
  for [r in runs] "out/".r."/probes.tsv" \
  using (column(2) > settle ? column("eps_zz") : NaN):((column("szz") - column("sxx")) / (column("szz") + column("sxx"))) \
  with lines lw 1.5 title r
set ylabel "volumetric strain ε_{v} (compression +)"
set key bottom left
plot "out/continued/probes.tsv" \
  using (column(2) > settle ? column("eps_zz") : NaN):"eps_vol" \
  with lines lw 1.5 lc rgb "gray60" title "jager-0 continued", \
  for [r in runs] "out/".r."/probes.tsv" \
  using (column(2) > settle ? column("eps_zz") : NaN):"eps_vol" with lines lw 1.5 title r
unset multiplot
