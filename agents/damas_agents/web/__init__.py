"""``damas web``: a board in the browser, served from this machine.

Play any agent (the specs of ``damas play``) in any ruleset or uploaded rules file, watch two
agents with their scores and principal variations, step through the games of a PDN file and
export a game as an animated SVG or GIF. :mod:`.games` holds the games, :mod:`.server` the
HTTP app, :mod:`.cli` the command; the page (``static/``) needs no build step.
"""
