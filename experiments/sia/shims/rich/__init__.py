"""A silent stand-in for rich, for hetsim's Sia fidelity run: Sia's simulator (multi_simulator.py)
renders a table of every active job each round, which costs more time than the simulation; the
figures come from its logs and its final JCT dictionary, not from that table."""
