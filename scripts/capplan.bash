# capplan.bash - bash completion for capplan(1).
#
# Installed by 'make install' as share/bash-completion/completions/capplan
# (bash-completion loads it on first use); or: source scripts/capplan.bash
#
# Everything offered comes from the binary itself, so it cannot go stale:
# the commands from 'capplan --help', a command's options from 'capplan
# CMD --help', device names from 'capplan catalog --format csv' (with
# --catalog FILE when the line names one), and the --set keys from
# 'capplan help keys'.

_capplan_commands()
{
	"$1" --help 2>/dev/null |
		sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'
}

# The --set keys as section.key=
_capplan_keys()
{
	"$1" help keys 2>/dev/null |
		sed -n -e 's/^\[\([a-z]*\)\]$/S \1/p' \
			-e 's/^  \([a-z_0-9][a-z_0-9]*\).*/K \1/p' |
		while read -r kind name; do
			case $kind in
			S) section=$name ;;
			K) printf '%s.%s=\n' "$section" "$name" ;;
			esac
		done
}

# COMPREPLY from compgen's lines (a file name with blanks stays whole).
_capplan_reply()
{
	mapfile -t COMPREPLY < <(compgen "$@")
}

_capplan()
{
	local bin=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local prev="" cmd="" catalog="" i w

	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ -z "$cmd" ] && [ "${w#-}" = "$w" ]; then
			cmd=$w
		fi
		if [ "$w" = --catalog ] && [ $((i + 1)) -lt "$COMP_CWORD" ]; then
			catalog=${COMP_WORDS[i + 1]}
		fi
	done
	COMPREPLY=()

	if [ -z "$cmd" ]; then
		case $cur in
		-*) _capplan_reply -W '--help --version' -- "$cur" ;;
		*) _capplan_reply -W "$(_capplan_commands "$bin")" \
			-- "$cur" ;;
		esac
		return 0
	fi
	if [ "$cmd" = help ]; then
		if [ "$prev" = help ]; then
			_capplan_reply -W \
				"$(_capplan_commands "$bin") keys" -- "$cur"
		elif [ "$prev" = keys ]; then
			_capplan_reply -W \
				'model training inference cluster' -- "$cur"
		fi
		return 0
	fi

	case $prev in
	--gpu)
		# a comma-separated list: complete the name after the last ','
		local head="" names
		case $cur in *,*) head=${cur%,*}, ;; esac
		if [ -n "$catalog" ]; then
			names=$("$bin" catalog --catalog "$catalog" \
				--format csv 2>/dev/null | sed '1d;s/,.*//')
		else
			names=$("$bin" catalog --format csv 2>/dev/null |
				sed '1d;s/,.*//')
		fi
		_capplan_reply -P "$head" -W "$names" -- "${cur##*,}"
		compopt -o nospace 2>/dev/null
		return 0
		;;
	--set)
		_capplan_reply -W "$(_capplan_keys "$bin")" -- "$cur"
		compopt -o nospace 2>/dev/null
		return 0
		;;
	--format)
		_capplan_reply -W 'table csv json' -- "$cur"
		return 0
		;;
	--plot-format)
		_capplan_reply -W 'png svg' -- "$cur"
		return 0
		;;
	--sort)
		_capplan_reply -W 'time cost energy latency token-cost
			throughput token-energy sample-cost sample-energy' \
			-- "$cur"
		return 0
		;;
	--plot)
		_capplan_reply -d -- "$cur"
		return 0
		;;
	--vary)
		_capplan_reply -W "gpu= $(_capplan_keys "$bin")" \
			-- "$cur"
		compopt -o nospace 2>/dev/null
		return 0
		;;
	--gpus | --top | --size | --deadline | --budget | --power-cap | \
		--serve-for)
		return 0 # a number or a quantity: nothing to offer
		;;
	--model | -o | --output | --catalog | --stacks | --profile)
		_capplan_reply -f -- "$cur"
		compopt -o filenames 2>/dev/null
		return 0
		;;
	esac
	case $cur in
	-*)
		_capplan_reply -W "$("$bin" "$cmd" --help 2>/dev/null |
			sed -n 's/^  \(-[a-z-]*, \)\{0,1\}\(--[a-z-]*\).*/\2/p')" \
			-- "$cur"
		return 0
		;;
	esac
	if [ "$cmd" = plot ] && [ "$prev" = plot ]; then
		_capplan_reply -W 'scaling cost-time memory roofline
			latency-throughput replicas energy cache' -- "$cur"
		return 0
	fi
	# a workload, a catalog, an output file
	_capplan_reply -f -- "$cur"
	compopt -o filenames 2>/dev/null
	return 0
}

complete -F _capplan capplan
