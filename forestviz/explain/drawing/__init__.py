"""One tree drawn with the row's path, through dtreeviz: the fitted tree as dtreeviz reads it
(``shadow``), what its leaves say (``tree_outputs``, ``leaf_text``, ``leaf_plot``), its numbers
and names (``drawn_numbers``, ``drawn_names``), the rendering and its cache (``treeviz``),
the one way every caller draws a shown tree (``tree_drawings``), the drawing's temporary files
(``files``) and dtreeviz's unwritten conventions (``dtreeviz_conventions``). dtreeviz and
matplotlib are imported only when drawing."""
