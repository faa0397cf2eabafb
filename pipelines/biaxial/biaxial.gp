# Deviator stress ratio (szz - sxx)/(szz + sxx) and volumetric strain against axial strain,
# for the four runs of the biaxial test (from their probes; compression positive).
set terminal pngcairo size 1100,500 font ",10"
set output "out/biaxial.png"
set multiplot layout 1,2 title "Plane-strain biaxial compression, 4096 spheres, constant lateral stress"
set datafile separator "\t"
set datafile columnheaders
set key bottom right
set xlabel "axial strain ε_{zz} (compression +)"
set grid
runs = "jager-0 jager-0.1 jager-0.2 mindlin"
titles = "'Jäger β=0' 'Jäger β=0.1' 'Jäger β=0.2' 'Mindlin'"
# columns by name; rows of the consolidation stage (step < settle) are skipped
set ylabel "deviator stress ratio (σ_{zz} − σ_{xx}) / (σ_{zz} + σ_{xx})"
plot for [r in runs] "out/".r."/probes.tsv" \
  using (column(2) > settle ? column("eps_zz") : NaN):((column("szz") - column("sxx")) / (column("szz") + column("sxx"))) \
  with lines lw 1.5 title r
set ylabel "volumetric strain ε_{v} (compression +)"
set key top right
plot for [r in runs] "out/".r."/probes.tsv" \
  using (column(2) > settle ? column("eps_zz") : NaN):"eps_vol" with lines lw 1.5 title r
unset multiplot
