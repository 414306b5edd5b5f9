# The files family.
#  - read near the end of a generated 1 GiB file vs `sed -n 'A,Bp'`: ratio <= 1.5,
#    and indus-tool's peak RSS <= 64 MiB;
#  - a one-line edit of a 50 MB file vs `sed -i`: ratio <= 2;
#  - `indus-tool diff` of two 200,000-line files with 1% of lines changed vs
#    GNU `diff -u`: ratio <= 1.0.
big="$WORK/big.txt"
python3 - "$big" <<'PY'
import sys
line = b"".join(b"%07d the quick brown fox jumps over the lazy dog %s\n" % (i, b"x" * (i % 40)) for i in range(100000))
target = 1 << 30
with open(sys.argv[1], "wb") as f:
    written = 0
    while written < target:
        f.write(line); written += len(line)
PY
lines=$(wc -l <"$big")
a=$((lines - 100)); b=$((a + 49))
compare "read: 50 lines near the end of 1 GiB" "sed -n ${a},${b}p $big" "$INDUS read $big --offset $a --limit 50" 1.5 1 5
rss_kb=$(/usr/bin/time -f '%M' "$INDUS" read "$big" --offset "$a" --limit 50 2>&1 >/dev/null | tail -1)
echo -e "read: peak RSS (KiB)\t-\t-\t${rss_kb}\t$((rss_kb / 1024)) MiB\t64 MiB\t$([ "$rss_kb" -le 65536 ] && echo ok || echo OVER)" >>"$ROWS"
rm -f "$big"

edit50="$WORK/edit50.txt"
python3 - "$edit50" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1_000_000):
        f.write(f"line {i:07d} of a fifty megabyte file, padded to width\n")
PY
cp "$edit50" "$WORK/edit50.orig"
# Each run flips the line back and forth so every run makes a real change.
cat >"$WORK/edit_ours.sh" <<SH
#!/bin/sh
if grep -q 'line 0500000 of a fifty' "$edit50"; then
  "$INDUS" edit "$edit50" --old-text 'line 0500000 of a fifty' --new-text 'LINE 0500000 of a fifty' >/dev/null
else
  "$INDUS" edit "$edit50" --old-text 'LINE 0500000 of a fifty' --new-text 'line 0500000 of a fifty' >/dev/null
fi
SH
cat >"$WORK/edit_sed.sh" <<SH
#!/bin/sh
if grep -q 'line 0500000 of a fifty' "$edit50"; then
  sed -i 's/line 0500000 of a fifty/LINE 0500000 of a fifty/' "$edit50"
else
  sed -i 's/LINE 0500000 of a fifty/line 0500000 of a fifty/' "$edit50"
fi
SH
chmod +x "$WORK/edit_ours.sh" "$WORK/edit_sed.sh"
compare "edit: one line of a 50 MB file" "$WORK/edit_sed.sh" "$WORK/edit_ours.sh" 2 2 10
# Peak memory of that edit, and of an indent-shifted (whole-line fuzzy) one, against
# the file's size: bar 2x (one replacement is made in the file's own buffer).
size_kb=$(( $(stat -c %s "$edit50") / 1024 ))
rss_kb=$(/usr/bin/time -f '%M' "$WORK/edit_ours.sh" 2>&1 >/dev/null | tail -1)
echo -e "edit: peak RSS / file size\t-\t${size_kb} KiB\t${rss_kb} KiB\t$(python3 -c "print(f'{$rss_kb/$size_kb:.2f}')")\t2\t$([ "$rss_kb" -le $((2 * size_kb)) ] && echo ok || echo OVER)" >>"$ROWS"
line=$(grep -m1 -n 'line 0600000 of a fifty' "$edit50" | cut -d: -f1)
if [ -n "$line" ]; then
  old=$(printf '    line 0600000 of a fifty megabyte file, padded to width\n    line 0600001 of a fifty megabyte file, padded to width\n')
  new=$(printf '    LINE 0600000 of a fifty megabyte file, padded to width\n    line 0600001 of a fifty megabyte file, padded to width\n')
  rss_kb=$(/usr/bin/time -f '%M' "$INDUS" edit "$edit50" --old-text "$old" --new-text "$new" 2>&1 >/dev/null | tail -1)
  echo -e "edit (indent-shifted): peak RSS / file size\t-\t${size_kb} KiB\t${rss_kb} KiB\t$(python3 -c "print(f'{$rss_kb/$size_kb:.2f}')")\t2\t$([ "$rss_kb" -le $((2 * size_kb)) ] && echo ok || echo OVER)" >>"$ROWS"
fi

d1="$WORK/d1.txt"; d2="$WORK/d2.txt"
python3 - "$d1" "$d2" <<'PY'
import sys, random
random.seed(7)
a = [f"row {i} value {random.randint(0, 10**9)}\n" for i in range(200_000)]
b = list(a)
for i in random.sample(range(200_000), 2000):
    b[i] = f"row {i} CHANGED {random.randint(0, 10**9)}\n"
open(sys.argv[1], "w").writelines(a); open(sys.argv[2], "w").writelines(b)
PY
HF_IGNORE=1 compare "diff: 200k lines, 1% changed" "diff -u $d1 $d2" "$INDUS diff $d1 $d2" 1.0 2 10
