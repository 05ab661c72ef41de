#!/bin/sh
# embed.sh FILE SYMBOL: print a C file defining 'const char SYMBOL[]' with the
# bytes of FILE followed by a NUL, and 'const size_t SYMBOL_len' (bytes
# without the NUL).  Bytes, not a string literal, so that no compiler limit
# on literal length applies.
set -eu
file=$1
sym=$2
printf '/* generated from %s by scripts/embed.sh; do not edit */\n' "$file"
printf '#include <stddef.h>\n'
printf 'extern const char %s[];\nextern const size_t %s_len;\n' "$sym" "$sym"
printf 'const char %s[] = {\n' "$sym"
od -An -v -tx1 "$file" | sed -e 's/ *$//' -e 's/^ *//' -e 's/ \{1,\}/, 0x/g' \
	-e 's/^/0x/' -e 's/$/,/' -e '/^0x,$/d'
printf '0x00\n};\nconst size_t %s_len = sizeof(%s) - 1;\n' "$sym" "$sym"
