# The level set of the rock on its body-frame y = 0 plane: colour = signed distance,
# black line = the zero contour (the surface), dots = surface nodes near the plane.
# usage: gnuplot -e "dir='out'" slice.gp
set terminal pngcairo size 1000,720 font ",11"
set output dir.'/slice.png'
set table dir.'/contour.tsv'
set contour base
set cntrparam levels discrete 0
unset surface
splot dir.'/slice.tsv' using 1:2:3 with lines
unset table
unset contour
set title "lsgen: level set of data/geometry/rock.geo, slice y = 0 (body frame)"
set xlabel "x (mm)"
set ylabel "z (mm)"
set cblabel "signed distance {/Symbol f} (mm), negative inside"
set size ratio -1
stats dir.'/slice.tsv' using 3 nooutput
m = abs(STATS_min) > abs(STATS_max) ? abs(STATS_min) : abs(STATS_max)
set cbrange [-m:m]
set palette defined (-1 "#2166ac", 0 "#f7f7f7", 1 "#b2182b")
set key outside bottom center horizontal
plot dir.'/slice.tsv' using 1:2:3 with image notitle, \
     dir.'/contour.tsv' using 1:2 with lines lw 2 lc rgb "black" title "{/Symbol f} = 0", \
     dir.'/slice-nodes.tsv' using 1:2 with points pt 7 ps 0.6 lc rgb "#1b7837" title "surface nodes (|y| < h/2)"
