# Porosity and stress ratio of the box sample against the lid stress: the curves are every
# probe row with the lid servo on, the points each loading stage's end (stages.py: measured
# from the walls). Coordination when the probes carry it.
set terminal pngcairo size 1200,420 font ",11"
set output dir."/compression.png"
set datafile separator "\t"
set key autotitle columnhead
set grid
set xlabel "lid stress (kPa)"
stages = dir."/stages.tsv"
trace = dir."/trace.tsv"
set multiplot layout 1,3 title "box compression: polydisperse spheres and level-set pebbles, Hertz + Jager (beta 0.1)"
set ylabel "porosity"
plot trace using (1e3*column("sigma_v")):"porosity" with lines lw 1.5 lc rgb "#4477aa" notitle, \
     stages using (1e3*column("sigma_v")):(column("lid_error") == column("lid_error") ? column("porosity") : NaN) \
       with points pt 7 ps 1.5 lc rgb "#cc3311" title "stage end"
set ylabel "stress ratio K = sigma_h / sigma_v"
plot trace using (1e3*column("sigma_v")):"K" with lines lw 1.5 lc rgb "#4477aa" notitle, \
     stages using (1e3*column("sigma_v")):(column("lid_error") == column("lid_error") ? column("K") : NaN) \
       with points pt 7 ps 1.5 lc rgb "#cc3311" title "stage end"
set ylabel "coordination number"
if (system("head -1 ".stages." | grep -c coordination") + 0 > 0) {
  plot trace using (1e3*column("sigma_v")):"coordination" with lines lw 1.5 title "Z", \
       trace using (1e3*column("sigma_v")):"coordination_nr" with lines lw 1.5 title "Z without rattlers"
} else {
  set label 1 "coordination: not in the probes" at graph 0.5, 0.5 center
  set yrange [0:1]
  plot -1 notitle
}
unset multiplot
