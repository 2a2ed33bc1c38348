<?php

function solution($a, $b)
{
    return $a + $b;
}
