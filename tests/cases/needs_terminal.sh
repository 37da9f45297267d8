# Sourced by the setup of a case that runs logtk on a terminal (progress lines,
# notes for a person waiting), which only script(1) provides here: skips the
# case (exit 77) where script(1) is missing or cannot open a terminal.
command -v script > /dev/null || { echo "script(1) not installed"; exit 77; }
script -qec true /dev/null > /dev/null 2>&1 || { echo "script(1) cannot open a terminal"; exit 77; }
