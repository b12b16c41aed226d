import type { Check } from '../../check.ts';
import socialProfileLinks from './social-profile-links.ts';
import socialShareImage from './social-share-image.ts';
import socialTwitterCard from './social-twitter-card.ts';

// The monitoring model's social dimension: how the site looks when shared.
export const socialChecks: Check[] = [socialTwitterCard, socialShareImage, socialProfileLinks];
