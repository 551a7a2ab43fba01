"""Practice matches against the computer: started at once, a level changeable during play."""
