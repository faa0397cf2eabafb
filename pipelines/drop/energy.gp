# Energies of the drop demo against time, from demrun's probes (columns by name).
set terminal pngcairo size 1000,640 font ",11"
set output dir."/energy.png"
set datafile separator "\t"
set key inside left top noenhanced
set multiplot layout 2,1 title "drop demo: 4 level-set rocks + 32 spheres, Hertz + Jager (mm, ms, g; energy in mJ)"
set ylabel "energy"
set grid
plot dir."/probes.tsv" using "t":"kinetic" with lines lw 2 title "kinetic", \
     "" using "t":(-column("potential")) with lines lw 2 title "-potential", \
     "" using "t":"dissipated" with lines lw 2 title "friction (Jager)", \
     "" using "t":"damped" with lines lw 2 title "local damping", \
     "" using "t":(column("stored_normal") + column("stored_tangential")) with lines lw 2 title "stored in contacts"
set xlabel "time (ms)"
set ylabel "balance error"
set format y "%.0e"
plot dir."/probes.tsv" using "t":"balance_error" with lines lw 2 title "(E + W_friction + W_damping - W_walls - E_0) / scale" noenhanced
unset multiplot
