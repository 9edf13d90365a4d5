"""Registers toklane's formats with vLLM when vLLM imports this file.

For ``vllm serve ... --tool-parser-plugin <path of this file>`` (or ``--reasoning-parser-plugin``),
where the ``vllm.general_plugins`` entry point of an installed toklane is not used.
"""

from toklane.integrations.vllm import register

register()
